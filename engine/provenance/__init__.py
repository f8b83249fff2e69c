"""What a measurement or a server ran: the code (commit, dirty, command), the engine's resolved settings, the
machine, the engine version. Below engine/bench and engine/serve, which both report these facts and never import
each other."""
