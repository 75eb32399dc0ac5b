/* Umbrella header for the librsvg-2.0 system library. */
#include <librsvg/rsvg.h>
