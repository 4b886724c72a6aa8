package tasks

import (
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// StateName is a task state as the UI and the channels say it, one word everywhere:
// TASK_STATE_INPUT_REQUIRED → "input-required"; anything else → "unknown".
func StateName(s a2a.TaskState) string {
	name, ok := strings.CutPrefix(string(s), "TASK_STATE_")
	if !ok || name == "" || name == "UNSPECIFIED" {
		return "unknown"
	}
	return strings.ReplaceAll(strings.ToLower(name), "_", "-")
}
