"""Services of the tournaments room (writes). Views, tasks and commands call these."""
