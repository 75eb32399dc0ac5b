# gst-watermark: build, test, install.
#   make            release build (plugin + CLI)
#   make test       build and run the test suite
#   make install    install the plugin into GStreamer's plugin directory and the CLI into $(PREFIX)/bin
#   make uninstall  remove both
PREFIX ?= /usr/local
DESTDIR ?=
PLUGINDIR ?= $(shell pkg-config --variable=pluginsdir gstreamer-1.0)
SWIFT ?= swift
# The Swift runtime is linked statically so the installed plugin and CLI do not need
# the toolchain at run time.
RELEASE_FLAGS = -c release -j 2 -Xswiftc -static-stdlib

.PHONY: all build test demo install uninstall clean deps

all: build

deps:
	bash scripts/install-deps

build:
	$(SWIFT) build $(RELEASE_FLAGS)

test:
	bash scripts/test

demo:
	bash scripts/demo

install: build
	install -d $(DESTDIR)$(PLUGINDIR) $(DESTDIR)$(PREFIX)/bin
	install -m 0644 .build/release/libgstwatermark.so $(DESTDIR)$(PLUGINDIR)/libgstwatermark.so
	install -m 0755 .build/release/gst-watermark $(DESTDIR)$(PREFIX)/bin/gst-watermark

uninstall:
	rm -f $(DESTDIR)$(PLUGINDIR)/libgstwatermark.so $(DESTDIR)$(PREFIX)/bin/gst-watermark

clean:
	rm -rf .build
