package focus

// Response is GET /focus' answer, and MCP's get_focus: the day asked for and its three lists,
// each with its flag saying whether it was cut.
type Response struct {
	Date          string  `json:"date" jsonschema:"the day, YYYY-MM-DD"`
	TZ            string  `json:"tz" jsonschema:"the time zone the day is in"`
	Targeted      []Entry `json:"targeted" jsonschema:"the items whose targetAt falls on the day, by targetAt"`
	TargetedMore  bool    `json:"targetedMore" jsonschema:"true when targeted was cut at 100 items"`
	FollowUps     []Entry `json:"followUps" jsonschema:"the items whose followUpAt is before the end of the day, oldest first"`
	FollowUpsMore bool    `json:"followUpsMore" jsonschema:"true when followUps was cut at 100 items"`
	Due           []Entry `json:"due" jsonschema:"the tasks not DONE whose dueAt is before the end of the day, oldest first"`
	DueMore       bool    `json:"dueMore" jsonschema:"true when due was cut at 100 items"`
}

// Entry is an item in a list: its kind, and the note (as GET /notes lists it, without
// pendingSuggestion) or the task as the API returns it.
type Entry struct {
	Kind string `json:"kind" jsonschema:"note or task"`
	Item any    `json:"item" jsonschema:"the note or the task, as the API returns it"`
}
