# gst-watermark: build, test, install.
#   make            release build (plugin + CLI)
#   make test       build and run the test suite
#   make install    install the plugin into GStreamer's plugin directory and the CLI into $(PREFIX)/bin
#   make uninstall  remove both
#   make format     format every Swift file (.swift-format); make lint checks it
#   make budgets    re-measure the blend's instruction budgets (Benchmarks/budgets.txt)
PREFIX ?= /usr/local
DESTDIR ?=
PLUGINDIR ?= $(shell pkg-config --variable=pluginsdir gstreamer-1.0)
SWIFT ?= swift
# The Swift runtime is linked statically so the installed plugin and CLI do not need
# the toolchain at run time. Nothing uses the string-processing (Regex) modules; not
# importing them implicitly keeps their ~2 MB out of the plugin (~0.7 MB less resident).
# Linked by the toolchain's lld with packed relative relocations (DT_RELR, glibc 2.36+):
# the plugin's ~16 000 relative relocations take 3 KB instead of 380 KB, which the loader
# no longer reads page by page (~0.45 MB less resident per process).
RELEASE_FLAGS = -c release -j 2 -Xswiftc -static-stdlib \
	-Xswiftc -Xfrontend -Xswiftc -disable-implicit-string-processing-module-import \
	-Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs

VERSION = $(shell cat VERSION)
ARCH = $(shell dpkg --print-architecture 2>/dev/null || echo amd64)
DEB = gst-watermark_$(VERSION)_$(ARCH).deb
# What the package depends on is what it was built against: GStreamer's minor version, and
# the sonames of the FFmpeg it opens (59 on Debian 12, 61 on Debian 13).
GST_MINOR = $(shell pkg-config --modversion gstreamer-1.0 | cut -d. -f1,2)
AVFORMAT_MAJOR = $(shell pkg-config --modversion libavformat | cut -d. -f1)
AVCODEC_MAJOR = $(shell pkg-config --modversion libavcodec | cut -d. -f1)
DEBROOT = .build/deb/root

.PHONY: all build test demo install uninstall clean deps deb format lint budgets

all: build

deps:
	bash scripts/install-deps

build:
	$(SWIFT) build $(RELEASE_FLAGS)

test:
	bash scripts/test

format:
	$(SWIFT) format format -i --parallel -r Package.swift Sources Tests Benchmarks Fuzz examples

lint:
	bash scripts/lint

budgets:
	bash scripts/instruction-budgets --update

demo:
	bash scripts/demo

install: build
	install -d $(DESTDIR)$(PLUGINDIR) $(DESTDIR)$(PREFIX)/bin
	install -m 0644 .build/release/libgstwatermark.so $(DESTDIR)$(PLUGINDIR)/libgstwatermark.so
	install -m 0755 .build/release/gst-watermark $(DESTDIR)$(PREFIX)/bin/gst-watermark
	install -d $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0644 docs/gst-watermark.1 $(DESTDIR)$(PREFIX)/share/man/man1/gst-watermark.1

uninstall:
	rm -f $(DESTDIR)$(PLUGINDIR)/libgstwatermark.so $(DESTDIR)$(PREFIX)/bin/gst-watermark \
	  $(DESTDIR)$(PREFIX)/share/man/man1/gst-watermark.1

# A Debian package with the plugin, the CLI, its man page and the systemd units that record
# network cameras; neither needs the Swift toolchain at run time (the Swift runtime is
# linked in statically).
deb: build
	rm -rf .build/deb
	install -d $(DEBROOT)/DEBIAN $(DEBROOT)$(PLUGINDIR) $(DEBROOT)/usr/bin $(DEBROOT)/usr/share/man/man1 \
	  $(DEBROOT)/usr/share/doc/gst-watermark
	install -m 0644 .build/release/libgstwatermark.so $(DEBROOT)$(PLUGINDIR)/libgstwatermark.so
	install -m 0755 .build/release/gst-watermark $(DEBROOT)/usr/bin/gst-watermark
	strip --strip-unneeded $(DEBROOT)$(PLUGINDIR)/libgstwatermark.so $(DEBROOT)/usr/bin/gst-watermark
	gzip -9n -c docs/gst-watermark.1 > $(DEBROOT)/usr/share/man/man1/gst-watermark.1.gz
	install -m 0644 LICENSE $(DEBROOT)/usr/share/doc/gst-watermark/copyright
	install -d $(DEBROOT)/lib/systemd/system $(DEBROOT)/usr/share/doc/gst-watermark/examples $(DEBROOT)/etc/gst-watermark
	install -m 0644 packaging/systemd/*.service packaging/systemd/*.timer $(DEBROOT)/lib/systemd/system/
	install -m 0644 packaging/systemd/cam1.env $(DEBROOT)/usr/share/doc/gst-watermark/examples/cam1.env
	install -m 0755 packaging/postinst $(DEBROOT)/DEBIAN/postinst
	sed -e 's/@VERSION@/$(VERSION)/' -e 's/@ARCH@/$(ARCH)/' -e 's/@GST@/$(GST_MINOR)/g' \
	  -e 's/@AVFORMAT@/$(AVFORMAT_MAJOR)/' -e 's/@AVCODEC@/$(AVCODEC_MAJOR)/' \
	  -e "s/@SIZE@/$$(du -sk $(DEBROOT) | cut -f1)/" packaging/control.in > $(DEBROOT)/DEBIAN/control
	dpkg-deb --root-owner-group --build $(DEBROOT) $(DEB)

clean:
	rm -rf .build
