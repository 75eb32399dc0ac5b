/* GIO (file monitors, socket addresses) and the few libsoup 3 types the CLI's control server
 * uses. libsoup itself is opened when --control first needs it
 * (Sources/WatermarkCLI/ServerLibraries.swift), so the CLI neither links it nor needs its
 * headers to build; these declarations are libsoup 3's stable ABI (soup-server.h,
 * soup-server-message.h, soup-message-headers.h, soup-message-body.h). */
#ifndef WATERMARK_SOUP_SHIM_H
#define WATERMARK_SOUP_SHIM_H

#include <gio/gio.h>

typedef struct _SoupServer SoupServer;
typedef struct _SoupServerMessage SoupServerMessage;
typedef struct _SoupMessageHeaders SoupMessageHeaders;
typedef struct _SoupMessageBody SoupMessageBody;

typedef enum {
  SOUP_ENCODING_UNRECOGNIZED,
  SOUP_ENCODING_NONE,
  SOUP_ENCODING_CONTENT_LENGTH,
  SOUP_ENCODING_EOF,
  SOUP_ENCODING_CHUNKED,
  SOUP_ENCODING_BYTERANGES
} SoupEncoding;

typedef enum {
  SOUP_MEMORY_STATIC,
  SOUP_MEMORY_TAKE,
  SOUP_MEMORY_COPY
} SoupMemoryUse;

typedef enum {
  SOUP_SERVER_LISTEN_HTTPS = (1 << 0),
  SOUP_SERVER_LISTEN_IPV4_ONLY = (1 << 1),
  SOUP_SERVER_LISTEN_IPV6_ONLY = (1 << 2)
} SoupServerListenOptions;

typedef void (*SoupServerCallback) (SoupServer * server, SoupServerMessage * msg, const char *path,
    GHashTable * query, gpointer user_data);

#endif
