/* FFmpeg's types and a table of the functions the element's animated PNG decoding calls.
 * The libraries themselves are opened on first use (Sources/WatermarkRender/AVLibrary.swift):
 * libavcodec pulls in every codec library Debian builds it with (over a hundred libraries,
 * ~30 MB resident once relocated), which a plugin that draws a PNG logo must not carry. The
 * table's entries have the headers' own prototypes. */
#ifndef WATERMARK_AV_TYPES_H
#define WATERMARK_AV_TYPES_H

#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>

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

#endif
