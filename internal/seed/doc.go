// Package seed makes the demo data of `recruitd dev` and `recruitd seed demo`: what the rows
// are, not how they reach Postgres (package bulkload does that).
//
//   - demo.go: the demo tenant (Demo, DemoIntegrations), a few hand-written jobs and
//     candidates created through the store, idempotent.
//   - scale*.go: a deterministic generated data set (Scale) of any size: scale_plan.go plans a
//     company (users, templates, jobs), scale_gen.go writes each candidate's rows, scale_data.go
//     and scale_rand.go hold the vocabulary and the seeded randomness.
//   - load.go: feeds the generated rows to bulkload, the candidates on their own lane (their
//     COPY and index builds are the critical path).
//
// The demo tenant and the generated data stay in one package because they are one tenant:
// Scale's company 1 is the demo tenant, which Scale creates through Demo first.
package seed
