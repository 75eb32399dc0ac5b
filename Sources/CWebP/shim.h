/* Umbrella header for libwebp's animation decoder (libwebpdemux): animated WebP logos. */
#include <webp/decode.h>
#include <webp/demux.h>
