package hrsuite

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/hrsuitereport"
	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// Delivery is a delivery as received: its body and who sent it.
type Delivery struct {
	Body       []byte
	ReceivedAt time.Time
	APIKeyID   *uuid.UUID
	RequestID  string
}

// Admit refuses a delivery before its body is read when the company's stored deliveries fill
// its quota already: the error is a *store.StorageQuotaError.
func (d *Deliveries) Admit(ctx context.Context, co *models.Company, quota int64) error {
	used, err := d.Store.HRSuiteStorageUsed(ctx, co.ID)
	if err != nil {
		return err
	}
	if used >= quota {
		return &store.StorageQuotaError{Used: used, Quota: quota}
	}
	return nil
}

// Receive stores a delivery before anything else, in one transaction with the start of its
// ingest, then starts the ingest: the rows are processed asynchronously
// (workflows.HRSuiteDelivery). A body that is not one JSON array is refused (hrsuitereport.ErrNotArray),
// one that would take the company's stored deliveries past quota too (*store.StorageQuotaError);
// a body identical to an earlier delivery is stored as its duplicate and starts nothing. When
// Temporal does not take the start, the stored delivery is still received: its start stays in
// the outbox and the reconciler starts it, since the HR suite needs nothing back from the
// processing and a retry would only store a duplicate.
func (d *Deliveries) Receive(ctx context.Context, co *models.Company, in Delivery, quota int64) (*store.HRSuiteReceipt, error) {
	rows, err := hrsuitereport.Count(in.Body)
	if err != nil {
		return nil, fmt.Errorf("count the delivery's rows: %w", err)
	}
	del := &models.HRSuiteDelivery{ID: uuid.New(), CompanyID: co.ID, ReceivedAt: in.ReceivedAt, Body: in.Body, RowCount: rows,
		APIKeyID: in.APIKeyID, RequestID: in.RequestID}
	start := kinds.HRSuiteDeliveryStart(co.Slug, kinds.HRSuiteDeliveryInput{CompanyID: co.ID, DeliveryID: del.ID})
	rec, err := d.Store.StoreHRSuiteDelivery(ctx, del, quota, start)
	if err != nil {
		return nil, err
	}
	log := d.Log.With("request_id", in.RequestID, "company", co.Slug, "delivery_id", del.ID, "rows", rows)
	if rec.Start == nil {
		log.InfoContext(ctx, "hr-suite delivery repeats an earlier body; stored as a duplicate", "first_delivery_id", *del.DuplicateOf)
		return rec, nil
	}
	if err := d.Launcher.LaunchMany(ctx, []models.WorkflowStart{*rec.Start}); err != nil {
		log.WarnContext(ctx, "hr-suite delivery stored; its ingest starts when Temporal is back (reconciler)", "err", err)
	}
	log.InfoContext(ctx, "hr-suite delivery stored", "body_bytes", del.BodyBytes, "stored_bytes", del.StoredBytes)
	return rec, nil
}
