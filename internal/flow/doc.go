// Package flow holds company workflow definitions and the interpreter that runs them.
//
// A Definition is a versioned JSON document, one per company and Trigger: a list of steps that
// run in order. Each step checks a condition, invites the candidate, waits, waits for the
// interview session, sends the partner callback, sets a status or cancels the session:
//
//	{
//	  "trigger": "partner_application",
//	  "enabled": true,
//	  "name": "Partner applicants",
//	  "steps": [
//	    {"id": "eligible", "type": "condition", "condition": {
//	      "all": [{"field": "job.isOpen", "op": "eq", "value": true}],
//	      "any": [{"field": "candidate.email", "op": "exists"}, {"field": "candidate.phone", "op": "exists"}],
//	      "onFalse": {"outcome": "not_eligible", "reason": "no_contact_details"}}},
//	    {"id": "invite", "type": "invite", "invite": {"channels": ["email", "sms"], "mediumType": "VIDEO"}},
//	    {"type": "partner_callback", "partner_callback": {"status": "invited"}},
//	    {"type": "wait_for_session", "wait_for_session": {"timeout": "72h", "onTimeout": {"outcome": "stop"}}}
//	  ]
//	}
//
// Parse reads and validates a stored or submitted definition; Validate reports every problem
// with its path. Hash identifies a version. Defaults are the definitions of the demo tenant.
//
// Run interprets a definition inside a Temporal workflow, so this package is pure and
// deterministic: it never reads the clock, starts goroutines, does I/O or lets map order or
// randomness affect behaviour. Every side effect goes through the Executor the caller passes.
package flow
