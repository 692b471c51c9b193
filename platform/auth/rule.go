package auth

import (
	"context"
	"errors"
	"slices"

	"go.uber.org/fx"

	"folio/platform/apierr"
	"folio/platform/clock"
)

// The access rule (CONTRACT.md section 20) in one place. What a principal may read is decided
// here, at the time of every use, whatever carries the data:
//
//   - a request's principal comes from Guard (the credential is checked on every request, within
//     the key cache's TTL);
//   - a carrier that holds data for later (a webhook, a calendar feed) holds a CredentialRef, and
//     Rule.Hold turns it back into the principal it serves as of now, or says why it is dead;
//   - Rule.Readable says which resources (notes, tasks, suggestions, notebooks, workspaces) that
//     principal can read now. Each module that owns a kind of resource answers for it through a
//     Reader (a value group), all of them on top of the notebooks module's access decision, which
//     every read of the API also goes through.
//
// The events feed, webhook dispatch and each delivery attempt ask Readable; idempotent replays
// are keyed by CredentialRef (a replay is only ever served to the credential that made it).

// CredentialRef names a stored credential: a key by its id, or a web session by its id. Carriers
// that hold data for later keep one.
type CredentialRef struct {
	Kind Credential
	ID   string
}

// Ref is the principal's credential.
func (p *Principal) Ref() CredentialRef {
	if p.Credential == CredentialSession {
		return CredentialRef{Kind: CredentialSession, ID: p.SessionID}
	}
	return CredentialRef{Kind: CredentialKey, ID: p.KeyID}
}

// String is the ref as one value ("key:<id>", "session:<id>"), as idempotency records keep it.
func (r CredentialRef) String() string { return string(r.Kind) + ":" + r.ID }

// Why a held credential reads nothing (a webhook's disabledReason).
const (
	DeadKeyRevoked = "KEY_REVOKED" // the key was revoked (a rotation moves its holdings first), or the session ended
	DeadKeyExpired = "KEY_EXPIRED" // the key, or the session, has expired
	DeadAccessLost = "ACCESS_LOST" // the credential lives but reads nothing: its restriction is out of its user's reach, or it has no read scope
)

// Held is a held credential as of now: its principal when it is live, else the reason it is dead.
type Held struct {
	Principal *Principal // nil when Dead is set
	Dead      string     // one of the Dead* reasons, "" when live
	// KeyName and KeyPrefix name a key that exists, live or not (to show whose a holding is).
	KeyName, KeyPrefix *string
}

// Resource names one thing a principal may or may not read.
type Resource struct {
	Type string // note, task, suggestion, notebook, workspace
	ID   string
}

// Reader answers the access rule for one type of resource: which of ids (all of that type)
// principal p can read now. rule lets a reader ask about other types (a suggestion is readable
// when its item is). Ids that name nothing are simply not readable.
type Reader interface {
	ResourceType() string
	Readable(ctx context.Context, rule *Rule, p *Principal, ids []string) (map[string]bool, error)
}

// AsReader joins a module's Reader constructor to the rule's value group:
// fx.Provide(auth.AsReader(newReader)).
func AsReader(f any) any {
	return fx.Annotate(f, fx.As(new(Reader)), fx.ResultTags(`group:"accessReaders"`))
}

// KeyHolder is what holds data for a key (webhooks, calendar feeds): a rotation moves its
// holdings to the new key, inside the rotation's transaction (tx is a *gorm.DB, typed any here so
// that this package stays free of the database).
type KeyHolder interface {
	MoveKey(ctx context.Context, tx any, fromKeyID, toKeyID string) error
}

// AsKeyHolder joins a KeyHolder constructor to the group the accounts module reads.
func AsKeyHolder(f any) any {
	return fx.Annotate(f, fx.As(new(KeyHolder)), fx.ResultTags(`group:"keyHolders"`))
}

// HeldCredentials is what Rule.Hold reads: keys and sessions by id (the accounts module's store).
type HeldCredentials interface {
	KeysByIDs(ctx context.Context, ids []string) ([]KeyRecord, error)
	SessionsByIDs(ctx context.Context, ids []string) ([]SessionRecord, error)
}

// Rule is the access rule's one home.
type Rule struct {
	credentials  HeldCredentials
	restrictions RestrictionChecker
	clock        clock.Clock
	readers      map[string]Reader
}

// RuleParams are the dependencies of NewRule.
type RuleParams struct {
	fx.In
	Credentials  HeldCredentials
	Restrictions RestrictionChecker
	Clock        clock.Clock
	Readers      []Reader `group:"accessReaders"`
}

// NewRule returns the rule with every module's Reader.
func NewRule(p RuleParams) *Rule {
	r := &Rule{credentials: p.Credentials, restrictions: p.Restrictions, clock: p.Clock, readers: map[string]Reader{}}
	for _, rd := range p.Readers {
		r.readers[rd.ResourceType()] = rd
	}
	return r
}

// Hold resolves held credentials as of now, the way Guard would authenticate them: a revoked or
// unknown key, or an ended session, is DeadKeyRevoked; an expired one DeadKeyExpired; a key
// without read scope, or whose restriction is out of its user's reach (the user left the
// workspace), DeadAccessLost. It reads the database (not the key cache): a holder asks at each
// use, and a revocation is seen at once on every instance.
func (r *Rule) Hold(ctx context.Context, refs []CredentialRef) (map[CredentialRef]Held, error) {
	var keyIDs, sessionIDs []string
	for _, ref := range refs {
		switch ref.Kind {
		case CredentialKey:
			keyIDs = append(keyIDs, ref.ID)
		case CredentialSession:
			sessionIDs = append(sessionIDs, ref.ID)
		}
	}
	out := make(map[CredentialRef]Held, len(refs))
	for _, ref := range refs { // unknown until found: a deleted key or session
		out[ref] = Held{Dead: DeadKeyRevoked}
	}
	now := r.clock.Now()
	if len(keyIDs) > 0 {
		keys, err := r.credentials.KeysByIDs(ctx, compact(keyIDs))
		if err != nil {
			return nil, err
		}
		for _, k := range keys {
			ref := CredentialRef{Kind: CredentialKey, ID: k.ID}
			name, prefix := k.Name, DisplayPrefix(k.Prefix)
			dead := func(reason string) Held { return Held{Dead: reason, KeyName: &name, KeyPrefix: &prefix} }
			switch {
			case k.Revoked:
				out[ref] = dead(DeadKeyRevoked)
			case expired(k.ExpiresAt, now):
				out[ref] = dead(DeadKeyExpired)
			case k.Scope&ScopeRead == 0:
				out[ref] = dead(DeadAccessLost)
			default:
				p := &Principal{Credential: CredentialKey, UserID: k.UserID, Scope: k.Scope, KeyID: k.ID, KeyName: k.Name,
					KeyPrefix: DisplayPrefix(k.Prefix), WorkspaceID: k.WorkspaceID, NotebookID: k.NotebookID}
				if p.WorkspaceID != nil || p.NotebookID != nil {
					err := r.restrictions.CheckRestriction(ctx, p.UserID, p.WorkspaceID, p.NotebookID)
					var ae *apierr.Error
					switch {
					case err == nil:
					case errors.As(err, &ae) && ae.Status < 500:
						out[ref] = dead(DeadAccessLost)
						continue
					default:
						return nil, err
					}
				}
				out[ref] = Held{Principal: p, KeyName: &name, KeyPrefix: &prefix}
			}
		}
	}
	if len(sessionIDs) > 0 {
		sessions, err := r.credentials.SessionsByIDs(ctx, compact(sessionIDs))
		if err != nil {
			return nil, err
		}
		for _, s := range sessions {
			ref := CredentialRef{Kind: CredentialSession, ID: s.ID}
			if !now.Before(s.ExpiresAt) {
				out[ref] = Held{Dead: DeadKeyExpired}
				continue
			}
			p := SessionPrincipal(s.UserID, s.ID)
			out[ref] = Held{Principal: &p}
		}
	}
	return out, nil
}

// HoldOne is Hold for one credential.
func (r *Rule) HoldOne(ctx context.Context, ref CredentialRef) (Held, error) {
	m, err := r.Hold(ctx, []CredentialRef{ref})
	if err != nil {
		return Held{}, err
	}
	return m[ref], nil
}

// Readable reports which of the resources p can read now. A principal without read scope reads
// nothing; a type no module answers for is never readable.
func (r *Rule) Readable(ctx context.Context, p *Principal, resources []Resource) (map[Resource]bool, error) {
	out := make(map[Resource]bool, len(resources))
	if p == nil || !p.Can(ScopeRead) || len(resources) == 0 {
		return out, nil
	}
	byType := map[string][]string{}
	for _, res := range resources {
		byType[res.Type] = append(byType[res.Type], res.ID)
	}
	for typ, ids := range byType {
		rd, ok := r.readers[typ]
		if !ok {
			continue
		}
		got, err := rd.Readable(ctx, r, p, compact(ids))
		if err != nil {
			return nil, err
		}
		for id, ok := range got {
			if ok {
				out[Resource{Type: typ, ID: id}] = true
			}
		}
	}
	return out, nil
}

// Knows reports whether a module answers for resources of type typ.
func (r *Rule) Knows(typ string) bool {
	_, ok := r.readers[typ]
	return ok
}

// compact sorts ids and drops repeats (one IN list entry per id).
func compact(ids []string) []string {
	ids = slices.Clone(ids)
	slices.Sort(ids)
	return slices.Compact(ids)
}
