# headingd — build and install.
# SPDX-License-Identifier: Apache-2.0
#
#   make                      build headingd (release)
#   make install              install it: PREFIX (default /usr/local), DESTDIR for staging
#   make deb                  the Debian package (scripts/build-deb)
#   make test                 the whole test suite (scripts/test)
#
# BINARY installs an already built headingd instead of building one.

PREFIX ?= /usr/local
DESTDIR ?=
SYSCONFDIR ?= /etc
UNITDIR ?= $(PREFIX)/lib/systemd/system
BINARY ?= .build/release/headingd

.PHONY: all build install deb test

all: build

build:
	scripts/ensure-deps run
	swift build -c release --product headingd

$(BINARY):
	$(MAKE) build

install: $(BINARY)
	install -D -m 0755 $(BINARY) $(DESTDIR)$(PREFIX)/bin/headingd
	install -d -m 0755 $(DESTDIR)$(UNITDIR)
	sed 's|/usr/bin/headingd|$(PREFIX)/bin/headingd|' systemd/headingd.service > $(DESTDIR)$(UNITDIR)/headingd.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/headingd.service
	install -d -m 0755 $(DESTDIR)$(SYSCONFDIR)/headingd/conf.d
	# An existing configuration is the administrator's: never overwritten.
	test -e $(DESTDIR)$(SYSCONFDIR)/headingd/headingd.toml || \
		install -m 0644 config/headingd.toml $(DESTDIR)$(SYSCONFDIR)/headingd/headingd.toml

deb:
	scripts/build-deb

test:
	scripts/test
