"""The players' guide: how to play each game (rendered from the rules document in its package), each game's
glossary, and the site's status page. No models: the rules pages and glossaries are files."""
