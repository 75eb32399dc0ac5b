/* Umbrella header for the pangocairo system library. */
#include <pango/pangocairo.h>
