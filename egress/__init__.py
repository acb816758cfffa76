"""Egress: every outbound LLM call passes here (modes, policy, PII sanitiser)."""
