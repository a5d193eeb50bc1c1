// Package llmtest helps tests fake an OpenAI-compatible chat-completions endpoint; no test
// ever calls a real model.
package llmtest

import "encoding/json"

// Reply is a chat-completions response whose one choice holds content, with the extra fields
// real servers send.
func Reply(content string) string {
	b, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "test-model",
		"choices": []any{map[string]any{
			"index": 0, "finish_reason": "stop", "logprobs": nil,
			"message": map[string]any{"role": "assistant", "content": content},
		}},
		"usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 20, "total_tokens": 30},
	})
	return string(b)
}
