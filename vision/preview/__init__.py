"""The camera's low-resolution preview: is the board still, has it changed since the last scan, is a
hand over it (:mod:`~vision.preview.stillness`), and where the board lies in the preview
(:mod:`~vision.preview.region`)."""
