"""Hardware: the camera, the button and the status light. Importing this package never touches a device.

``hardware.camera.open_camera(spec)`` picks a camera backend; ``hardware.button.ScanButton`` and
``hardware.led.StatusLight`` wrap gpiozero (tests use ``gpiozero.pins.mock.MockFactory``).
"""
