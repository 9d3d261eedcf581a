"""What every room needs and no room owns: the loopback HTTP server (`http`), atomic file writes (`atomic`),
process trees, their memory and the watchdog that kills a hung one (`proc`), and outside JSON and images bounded
before they are parsed (`untrusted`). Standard library and psutil only (`untrusted` imports Pillow and OpenCV
lazily, to decode an image it has checked); every venuskit package may import it."""
