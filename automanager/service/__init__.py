"""`automanager serve`: the STAR turns of both bots over HTTP for many drive-through lanes, the
pages a lane and a manager use, and a live event stream, on the same state store as the chats."""
