/* FFmpeg's libavformat for the CLI's metadata step (reading a file's capture tags and copying
 * an export's packets into a file that carries them). */
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/dict.h>
