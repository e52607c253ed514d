"""The camera's lens: its distortion model, fitted to straight lines of the board or to a ChArUco sheet."""
