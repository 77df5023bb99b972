"""agents: the agents' door, `gitgarden mcp` — an MCP server whose tools capture to the journal and
read and search the wiki, and nothing else (no tool writes, moves or deletes a page, runs a pass
or changes a setting). `tools` is the door as plain functions; `server` wires them to the MCP SDK.

May import: services, search, project, config, errors.
"""
