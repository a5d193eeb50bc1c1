package generate

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTitle(t *testing.T) {
	tests := []struct {
		name, title, desc, want string
	}{
		{"explicit title wins", "  Staff   Engineer ", "We are hiring a Senior Backend Engineer to build our payments platform.", "Staff Engineer"},
		{"we are hiring", "", "We are hiring a Senior Backend Engineer to build our payments platform.", "Senior Backend Engineer"},
		{"lower-case hiring phrase with fillers", "", "we're looking for an experienced, friendly customer support specialist who loves helping people.", "Customer Support Specialist"},
		{"plural role", "", "Acme is hiring! We are looking for Backend Engineers to join our platform team.", "Backend Engineer"},
		{"job title label", "", "Job Title: Warehouse Associate\nLocation: Reno, NV\nPick and pack orders.", "Warehouse Associate"},
		{"label on its own line", "", "Job Title:\nDelivery Driver\nDeliver packages on time.", "Delivery Driver"},
		{"position label", "", "Position: Registered Nurse (Nights)\nProvide patient care on a busy ward.", "Registered Nurse (Nights)"},
		{"employment type is no title", "", "Job Type: Full-time\nPosition: Full-time\nAs a Barista, you will craft espresso drinks.", "Barista"},
		{"first line title", "", "Line Cook\n\nJoin our kitchen team. You will prepare food to our standards.", "Line Cook"},
		{"markdown heading", "", "# **Senior Data Engineer**\n\n## About us\nWe move data.", "Senior Data Engineer"},
		{"company name line is no title", "", "Acme Health Partners\nWe are seeking a Pharmacy Technician to support our pharmacists.", "Pharmacy Technician"},
		{"hiring manager is no hiring phrase", "", "The hiring manager reviews every application. We are seeking a Pharmacy Technician to support our pharmacists.", "Pharmacy Technician"},
		{"title case phrase", "", "We're hiring a Head of Growth to own our funnel.", "Head of Growth"},
		{"most mentioned role", "", "Our data analysts turn numbers into decisions. Each data analyst owns reporting for one region, and the analyst group meets weekly.", "Data Analyst"},
		{"shouting", "", "ACME LOGISTICS\nNOW HIRING: CDL-A TRUCK DRIVERS\nHome weekly!", "CDL-A Truck Driver"},
		{"of phrase after as our", "", "As our next Director of Engineering, you will lead five teams.", "Director of Engineering"},
		{"compound role after want", "", "Company: Acme\nLocation: Remote\nWe want an experienced nurse practitioner.", "Nurse Practitioner"},
		{"qualified first line", "", "Account Executive (B2B SaaS)\nYou'll own the full sales cycle.", "Account Executive (B2B SaaS)"},
		{"lone ambiguous role after hiring", "", "We're hiring servers for our busy downtown restaurant!", "Server"},
		{"other labels are no title", "", "Company: Acme\nReports to: Engineering Manager\nWe are hiring a Backend Engineer to scale our API.", "Backend Engineer"},
		{"no role at all", "", "Great pay and flexible hours. Apply today!", fallbackTitle},
		{"a leader in fintech is no title", "", "Acme, as a leader in fintech, builds great things for everyone.", fallbackTitle},
	}
	l := NewLocal()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := l.Generate(context.Background(), Request{Title: tt.title, Description: tt.desc})
			if err != nil {
				t.Fatalf("Generate(%q): %v", tt.desc, err)
			}
			if g.Title != tt.want {
				t.Errorf("Generate(%q) title = %q, want %q", tt.desc, g.Title, tt.want)
			}
		})
	}
}

func TestTitleBounded(t *testing.T) {
	long := strings.Repeat("Very ", 100) + "Long Engineer"
	for _, r := range []Request{
		{Title: long, Description: "Build things."},
		{Description: "Job Title: " + strings.Repeat("Engineer", 60) + "\nBuild things."},
	} {
		g, err := NewLocal().Generate(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		if n := utf8.RuneCountInString(g.Title); n == 0 || n > MaxTitleLen {
			t.Errorf("Generate(%.40q) title has %d characters, want 1..%d", r.Description, n, MaxTitleLen)
		}
	}
}
