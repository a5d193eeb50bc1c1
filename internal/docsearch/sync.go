package docsearch

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// indexVersion is part of the content hash: changing how documents are split (or stored) must
// change it, so that Sync rebuilds an index made by an older binary from the same docs.
const indexVersion = "docsearch/1"

// lockKey is the key of the transaction-level advisory lock that serialises Sync between
// processes ("docsrch" in ASCII).
const lockKey int64 = 0x646f637372636800

// Load parses every *.md file at the root of fsys except README.md (the index of the pages,
// which answers no question itself), in name order, and returns the documents and the content
// hash of the set (Hash).
func Load(fsys fs.FS) ([]Doc, string, error) {
	docs := []Doc{}
	hash, err := walk(fsys, func(name string, src []byte) {
		docs = append(docs, Parse(strings.TrimSuffix(path.Base(name), ".md"), src))
	})
	if err != nil {
		return nil, "", err
	}
	return docs, hash, nil
}

// Hash is the content hash of the documents Load reads from fsys, without parsing them: the
// hash Sync records, which the tool server compares with the index's (IndexedHash).
func Hash(fsys fs.FS) (string, error) {
	return walk(fsys, func(string, []byte) {})
}

// walk calls each with every document of fsys in name order and returns their content hash.
func walk(fsys fs.FS, each func(name string, src []byte)) (string, error) {
	all, err := fs.Glob(fsys, "*.md")
	if err != nil {
		return "", fmt.Errorf("list docs: %w", err)
	}
	var names []string
	for _, n := range all {
		if !strings.EqualFold(n, "README.md") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	h := sha256.New()
	h.Write([]byte(indexVersion))
	for _, name := range names {
		src, err := fs.ReadFile(fsys, name)
		if err != nil {
			return "", fmt.Errorf("read doc %s: %w", name, err)
		}
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(name)))
		h.Write(n[:])
		h.Write([]byte(name))
		binary.BigEndian.PutUint64(n[:], uint64(len(src)))
		h.Write(n[:])
		h.Write(src)
		each(name, src)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Sync makes doc_sections hold the sections of the markdown files at the root of fsys; it runs
// where the schema is migrated (recruitd migrate, recruitd dev, the test databases), never in
// the read-only tool server. When
// their content hash equals the one recorded in doc_index_state it changes nothing and reports
// false; otherwise it replaces every row in one transaction and records the new hash. Callers
// in several processes may run it at once: a transaction-level advisory lock lets one rebuild
// while the others wait, then find the new hash and change nothing. Sections with an empty body
// are not stored.
func Sync(ctx context.Context, db *sql.DB, fsys fs.FS) (changed bool, err error) {
	hash, err := Hash(fsys)
	if err != nil {
		return false, err
	}
	if current, err := IndexedHash(ctx, db); err != nil {
		return false, err
	} else if current == hash {
		return false, nil
	}

	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("sync docs: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, lockKey); err != nil {
		return false, fmt.Errorf("sync docs: lock: %w", err)
	}
	if current, err := IndexedHash(ctx, tx); err != nil {
		return false, err
	} else if current == hash {
		return false, tx.Commit()
	}
	docs, hash, err := Load(fsys)
	if err != nil {
		return false, err
	}

	var (
		names, anchors, titles, docTitles, bodies []string
		positions                                 []int32
	)
	for _, d := range docs {
		for i, s := range d.Sections {
			if strings.TrimSpace(s.Body) == "" {
				continue
			}
			names = append(names, d.Name)
			anchors = append(anchors, s.Anchor)
			titles = append(titles, s.Title)
			docTitles = append(docTitles, d.Title)
			positions = append(positions, int32(i))
			bodies = append(bodies, s.Body)
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM doc_sections`); err != nil {
		return false, fmt.Errorf("sync docs: clear: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `
		INSERT INTO doc_sections (doc, anchor, title, doc_title, position, body)
		SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[], $6::text[])`,
		names, anchors, titles, docTitles, positions, bodies); err != nil {
		return false, fmt.Errorf("sync docs: insert sections: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `
		INSERT INTO doc_index_state (singleton, content_hash, indexed_at) VALUES (true, $1, now())
		ON CONFLICT (singleton) DO UPDATE SET content_hash = EXCLUDED.content_hash, indexed_at = EXCLUDED.indexed_at`,
		hash); err != nil {
		return false, fmt.Errorf("sync docs: record hash: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("sync docs: commit: %w", err)
	}
	return true, nil
}

// Querier runs statements: a pool, a connection or a transaction.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// IndexedHash returns the content hash the index was built from, or "" when it was never
// built.
func IndexedHash(ctx context.Context, q Querier) (string, error) {
	var h string
	err := q.QueryRowContext(ctx, `SELECT content_hash FROM doc_index_state`).Scan(&h)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read doc index state: %w", err)
	}
	return h, nil
}
