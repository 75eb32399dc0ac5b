/* Umbrella header for libsoup 3 (the CLI's control server) and GIO's file monitors. */
#include <libsoup/soup.h>
#include <gio/gio.h>
