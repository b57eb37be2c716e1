"""hetdep as an HTTP service: UDPipe 2's REST interface, pictures of trees, and a web page."""
