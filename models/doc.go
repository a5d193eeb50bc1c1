// Package models holds the GORM models of the tables created by the migrations package, the
// enumerations stored in their text columns, and the column types (StringArray, JSON) they need.
//
// Column tags mirror migrations/*.sql exactly; the schema is owned by the migrations, never by
// AutoMigrate. Nullable columns are pointers. GORM default tags appear only where the Go zero
// value is never valid (enumerations, ids) or is an explicit documented exception
// (Company.CheatThreshold): GORM replaces a zero value by the tag's default on Create, so
// booleans carry no default tag and are always written as given.
package models
