"""What the source reader shows beside the text: the passages a curator asked for, suggested mentions, coverage."""
