"""What every room needs and no room owns: the loopback HTTP server (`http`), atomic file writes (`atomic`),
process trees and memory (`proc`). Standard library and psutil only; every venuskit package may import it."""
