"""In the Cave's compiled rules: the packed record (``layout``), the action table (``actions``), the rules by ID
(``cave``, ``rules``, ``packing``, ``turns``, ``setup``), batch kernels (``kernels``) and ``ItcCore`` (``game``)."""
