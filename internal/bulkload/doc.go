// Package bulkload loads large generated data sets into Postgres fast, knowing nothing of what
// the rows mean (internal/seed decides that): rows encoded straight into the binary COPY format
// (Buf), streamed through COPY while they are generated (Copy), secondary indexes dropped before
// a load and re-created after it (DropIndexes, CreateIndexes), transactions that load tables side
// by side and commit together (WithConn, InTx), index builds taken in turn (Turnstile), and a
// per-table progress board (Progress).
package bulkload
