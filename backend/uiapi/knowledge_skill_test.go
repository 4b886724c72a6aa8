package uiapi_test

import (
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// A question the hub's knowledge skill answered is not the owner's to act on: the inbox lists only
// the message that went to the owner.
func TestInboxListsNoTaskTheKnowledgeSkillAnswered(t *testing.T) {
	h := startHub(t)
	c := dial(t, h)
	sender := client(t, h.Agent.BaseURL)
	question := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("demo"))
	question.Metadata = map[string]any{"skill": "knowledge"}
	answered := startTask(t, sender, question)
	forOwner := startTask(t, sender, a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("Lunch at noon?")))

	var list struct {
		Tasks []struct{ ID string }
	}
	c.result("inbox.list", nil, &list)
	if len(list.Tasks) != 1 || list.Tasks[0].ID != string(forOwner.ID) {
		t.Fatalf("the inbox lists %+v; want only %s (not the answered question %s)", list.Tasks, forOwner.ID, answered.ID)
	}
}
