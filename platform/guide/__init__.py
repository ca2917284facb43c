"""The players' guide: how to play each game (rendered from docs/rules/), each game's
glossary, and the site's status page. No models: the rules pages and glossaries are files."""
