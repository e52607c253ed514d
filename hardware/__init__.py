"""Hardware: the camera and the button. Importing this package never touches a device."""
