"""hetdep as an HTTP service: UDPipe 2's REST interface, pictures of trees, and a web page
(its packages are the extra ``hetdep[serve]``: said in one line when they are missing)."""

from hetdep.extras import require

require("serve", "hetdep's service")
