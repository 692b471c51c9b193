package tags

// Tag is a #tag or an @person within one space: a user's personal space (SpaceID is the user's id)
// or a workspace (SpaceID is the workspace's id). Identity is (space, kind, lower-cased name); Name
// keeps the casing first seen.
//
// A name is as long as the content allows (up to 100,000 characters), far beyond what a PostgreSQL
// B-tree entry holds (about 2.7 kB), so the identity index holds NameKey, the SHA-256 of the
// lower-cased name (see nameKey), and Name is unbounded text. The hash leads the index: the
// lookup of a content's tags (name_key IN (...), up to 1,000 at a time) is then an index probe per
// name even under a generic plan, rather than a filter over every tag of the space.
type Tag struct {
	ID      string `gorm:"primaryKey;size:24"`
	SpaceID string `gorm:"size:24;not null;uniqueIndex:idx_tags_identity,priority:2"`
	Kind    string `gorm:"size:10;not null;uniqueIndex:idx_tags_identity,priority:3"`
	NameKey string `gorm:"size:64;not null;uniqueIndex:idx_tags_identity,priority:1"`
	Name    string `gorm:"not null"`
}

// ItemTag attaches a tag to a note or a task.
type ItemTag struct {
	ItemKind string `gorm:"primaryKey;size:10"`
	ItemID   string `gorm:"primaryKey;size:24"`
	TagID    string `gorm:"primaryKey;size:24;index"`
	Tag      *Tag   `gorm:"constraint:OnDelete:CASCADE"`
}
