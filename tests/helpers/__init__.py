"""Helpers the tests import: projects and the scripted model (`project`), a fake OpenAI server,
a GBNF reader, the lost-content checker, an Obsidian vault builder, the web app's test client,
the MCP server launcher and a real model server. No test module imports another; they import these."""
