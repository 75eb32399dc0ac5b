/* Umbrella header for the gdk-pixbuf-2.0 system library. */
#include <gdk-pixbuf/gdk-pixbuf.h>
