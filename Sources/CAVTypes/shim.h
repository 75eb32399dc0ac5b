/* FFmpeg's types and tables of the functions the element's animated PNG decoding calls and
 * the CLI's export calls.
 * The libraries themselves are opened on first use (Sources/WatermarkRender/AVLibrary.swift):
 * libavcodec pulls in every codec library Debian builds it with (over a hundred libraries,
 * ~30 MB resident once relocated), which a plugin that draws a PNG logo must not carry. The
 * table's entries have the headers' own prototypes. */
#ifndef WATERMARK_AV_TYPES_H
#define WATERMARK_AV_TYPES_H

#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/dict.h>

typedef struct {
  __typeof__(avformat_open_input) *avformat_open_input;
  __typeof__(avformat_find_stream_info) *avformat_find_stream_info;
  __typeof__(avformat_close_input) *avformat_close_input;
  __typeof__(av_find_input_format) *av_find_input_format;
  __typeof__(av_read_frame) *av_read_frame;
  __typeof__(avcodec_find_decoder) *avcodec_find_decoder;
  __typeof__(avcodec_alloc_context3) *avcodec_alloc_context3;
  __typeof__(avcodec_free_context) *avcodec_free_context;
  __typeof__(avcodec_parameters_to_context) *avcodec_parameters_to_context;
  __typeof__(avcodec_open2) *avcodec_open2;
  __typeof__(avcodec_send_packet) *avcodec_send_packet;
  __typeof__(avcodec_receive_frame) *avcodec_receive_frame;
  __typeof__(av_packet_alloc) *av_packet_alloc;
  __typeof__(av_packet_free) *av_packet_free;
  __typeof__(av_packet_unref) *av_packet_unref;
  __typeof__(av_frame_alloc) *av_frame_alloc;
  __typeof__(av_frame_free) *av_frame_free;
  __typeof__(av_frame_unref) *av_frame_unref;
} WatermarkAVFunctions;

/* The functions the CLI's export calls to read a file's capture metadata and tracks, extract a
 * subtitle track and copy packets into the finished file (Sources/WatermarkCLI/FFmpeg.swift):
 * opened when an export first reads its input, so a capture or a stream does not load FFmpeg.
 * Every entry is set. */
#pragma clang assume_nonnull begin
typedef struct {
  __typeof__(avformat_open_input) *avformat_open_input;
  __typeof__(avformat_find_stream_info) *avformat_find_stream_info;
  __typeof__(avformat_close_input) *avformat_close_input;
  __typeof__(avformat_alloc_output_context2) *avformat_alloc_output_context2;
  __typeof__(avformat_free_context) *avformat_free_context;
  __typeof__(avformat_new_stream) *avformat_new_stream;
  __typeof__(avformat_query_codec) *avformat_query_codec;
  __typeof__(avformat_write_header) *avformat_write_header;
  __typeof__(av_guess_format) *av_guess_format;
  __typeof__(av_codec_get_id) *av_codec_get_id;
  __typeof__(av_read_frame) *av_read_frame;
  __typeof__(av_interleaved_write_frame) *av_interleaved_write_frame;
  __typeof__(av_write_trailer) *av_write_trailer;
  __typeof__(avio_open) *avio_open;
  __typeof__(avio_closep) *avio_closep;
  __typeof__(avcodec_find_decoder) *avcodec_find_decoder;
  __typeof__(avcodec_find_encoder) *avcodec_find_encoder;
  __typeof__(avcodec_get_name) *avcodec_get_name;
  __typeof__(avcodec_alloc_context3) *avcodec_alloc_context3;
  __typeof__(avcodec_free_context) *avcodec_free_context;
  __typeof__(avcodec_open2) *avcodec_open2;
  __typeof__(avcodec_parameters_copy) *avcodec_parameters_copy;
  __typeof__(avcodec_parameters_from_context) *avcodec_parameters_from_context;
  __typeof__(avcodec_parameters_to_context) *avcodec_parameters_to_context;
  __typeof__(avcodec_decode_subtitle2) *avcodec_decode_subtitle2;
  __typeof__(avcodec_encode_subtitle) *avcodec_encode_subtitle;
  __typeof__(avsubtitle_free) *avsubtitle_free;
  __typeof__(av_packet_alloc) *av_packet_alloc;
  __typeof__(av_packet_free) *av_packet_free;
  __typeof__(av_packet_unref) *av_packet_unref;
  __typeof__(av_packet_rescale_ts) *av_packet_rescale_ts;
  __typeof__(av_dict_get) *av_dict_get;
  __typeof__(av_dict_set) *av_dict_set;
  __typeof__(av_dict_free) *av_dict_free;
  __typeof__(av_malloc) *av_malloc;
  __typeof__(av_mallocz) *av_mallocz;
  __typeof__(av_free) *av_free;
  __typeof__(av_buffer_create) *av_buffer_create;
  __typeof__(av_buffer_default_free) *av_buffer_default_free;
  __typeof__(av_rescale_q) *av_rescale_q;
} WatermarkAVFormatFunctions;
#pragma clang assume_nonnull end

/* Where FFmpeg's versions differ, one branch each on the headers' version, so that the
 * Swift code is the same for FFmpeg 5.1 (Debian 12) and 7.1 (Debian 13). Both read only the
 * structures of the headers this was built with, whose sonames are the ones opened. */

/* A decoded frame's duration in its stream's time base (0 when unknown): `duration` since
 * libavutil 57.30 (FFmpeg 6.0), `pkt_duration` before it (removed in FFmpeg 7). */
static inline int64_t watermark_av_frame_duration(const AVFrame *frame) {
#if LIBAVUTIL_VERSION_INT >= AV_VERSION_INT(57, 30, 100)
  return frame->duration;
#else
  return frame->pkt_duration;
#endif
}

/* A stream's display matrix (nine 32-bit entries, 16.16 and 2.30 fixed point) as read with the
 * file's header, or NULL with *size 0: in the codec parameters' coded side data since
 * libavcodec 60.30 (FFmpeg 6.1; FFmpeg 7 fills only that), in the stream's side data before. */
static inline const uint8_t *watermark_av_display_matrix(const AVStream *stream, size_t *size) {
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(60, 30, 100)
  const AVPacketSideData *sides = stream->codecpar ? stream->codecpar->coded_side_data : NULL;
  int count = stream->codecpar ? stream->codecpar->nb_coded_side_data : 0;
#else
  const AVPacketSideData *sides = stream->side_data;
  int count = stream->nb_side_data;
#endif
  for (int i = 0; sides && i < count; i++) {
    if (sides[i].type == AV_PKT_DATA_DISPLAYMATRIX && sides[i].data) {
      *size = sides[i].size;
      return sides[i].data;
    }
  }
  *size = 0;
  return NULL;
}

#endif
