"""The offline understanding (text -> predicates of the vocabulary) and the reply templates
(decided predicates -> text) of both bots: plain language code, no LLM in it."""
