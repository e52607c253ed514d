"""Web: the station's local page (Flask). It only calls the station."""
