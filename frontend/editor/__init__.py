"""The task editor: form codec and the inputs generated from the JSON Schemas."""
