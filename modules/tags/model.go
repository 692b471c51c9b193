package tags

import "time"

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
//
// ItemCreatedAt is the item's created_at (which never changes), so that idx_item_tags_tag_time
// (tag_id, item_kind, item_created_at DESC, item_id DESC) serves "the items with this tag, newest
// first" (a list's ?tag= filter, see modules/notes/store.go) without reading the items that do not
// carry the tag. The index leads with tag_id, so it also serves the foreign key's cascade.
type ItemTag struct {
	ItemKind      string    `gorm:"primaryKey;size:10;index:idx_item_tags_tag_time,priority:2"`
	ItemID        string    `gorm:"primaryKey;size:24;index:idx_item_tags_tag_time,priority:4,sort:desc"`
	TagID         string    `gorm:"primaryKey;size:24;index:idx_item_tags_tag_time,priority:1"`
	ItemCreatedAt time.Time `gorm:"index:idx_item_tags_tag_time,priority:3,sort:desc"`
	Tag           *Tag      `gorm:"constraint:OnDelete:CASCADE"`
}
