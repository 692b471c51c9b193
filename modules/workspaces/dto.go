package workspaces

import "folio/platform/httpx"

type createRequest struct {
	Name                            string `json:"name" binding:"required"`
	httpx.Echoes[workspaceResponse]        // its other fields are "set by the server"
}

type inviteRequest struct {
	Email                        string `json:"email" binding:"required"`
	httpx.Echoes[memberResponse]        // its other fields are "set by the server"
}

type memberResponse struct {
	UserID string `json:"userId"`
	Name   string `json:"name"`
	Email  string `json:"email"`
	Role   string `json:"role"`
}

type workspaceResponse struct {
	ID        string           `json:"id"`
	Name      string           `json:"name"`
	Role      string           `json:"role"`
	Members   []memberResponse `json:"members"`
	CreatedAt string           `json:"createdAt"`
}

// removedMember is the data of a workspace.member_removed event.
type removedMember struct {
	WorkspaceID string `json:"workspaceId"`
	UserID      string `json:"userId"`
}

type membershipResponse struct {
	WorkspaceID string `json:"workspaceId"`
	UserID      string `json:"userId"`
	Role        string `json:"role"`
}

func toWorkspaceResponse(v View) workspaceResponse {
	members := make([]memberResponse, len(v.Members))
	for i, m := range v.Members {
		members[i] = memberResponse{UserID: m.UserID, Name: m.Name, Email: m.Email, Role: m.Role}
	}
	return workspaceResponse{ID: v.Workspace.ID, Name: v.Workspace.Name, Role: v.Role, Members: members, CreatedAt: httpx.Time(v.Workspace.CreatedAt)}
}
