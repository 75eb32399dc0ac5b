/* libavformat (FFmpeg's container library), for the CLI's metadata step: reading a file's
 * capture tags and copying an export's packets into a file that carries them. The plugin
 * does not link it. */
#include <libavformat/avformat.h>
#include <libavutil/dict.h>
