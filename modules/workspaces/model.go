package workspaces

import "time"

// Roles in a workspace.
const (
	RoleOwner  = "OWNER"
	RoleMember = "MEMBER"
)

// Workspace is a shared space with members.
type Workspace struct {
	ID          string `gorm:"primaryKey;size:24"`
	Name        string `gorm:"size:80;not null"`
	CreatedByID string `gorm:"size:24;not null"`
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// Membership says that a user belongs to a workspace, with a role. The primary key makes a user a
// member at most once.
type Membership struct {
	WorkspaceID string     `gorm:"primaryKey;size:24"`
	Workspace   *Workspace `gorm:"constraint:OnDelete:CASCADE"`
	UserID      string     `gorm:"primaryKey;size:24;index"`
	Role        string     `gorm:"size:10;not null"`
	CreatedAt   time.Time
}

// memberRow is a membership joined with its user's public fields (a read-only join on the accounts
// module's users table).
type memberRow struct {
	WorkspaceID string
	UserID      string
	Name        string
	Email       string
	Role        string
}

// workspaceRow is a workspace with the caller's role in it.
type workspaceRow struct {
	Workspace
	Role string
}
