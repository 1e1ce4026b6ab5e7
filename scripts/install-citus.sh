#!/usr/bin/env bash
# Builds Citus from a vendored release archive and installs it into the system PostgreSQL, when
# the extension is not installed yet. Used by `make citus`; see docs/citus.md.
#
#   scripts/install-citus.sh ARCHIVE SHA256
#
# Debian's archive has no Citus package. Users install Citus from the Citus project's own
# packages (https://docs.citusdata.com) or use a managed service; this build exists so that the
# tests can run on a fresh machine that has a copy of the released source.
set -euo pipefail

archive=${1:?usage: install-citus.sh ARCHIVE SHA256}
expected_sha=${2:?usage: install-citus.sh ARCHIVE SHA256}
sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo

# The PostgreSQL major version whose server is installed (the one the tests run).
pg_major=$(ls -d /usr/lib/postgresql/*/bin/postgres 2>/dev/null | sed -E 's#.*/postgresql/([0-9]+)/.*#\1#' | sort -n | tail -1)
if [ -z "$pg_major" ]; then
  echo "no PostgreSQL server in /usr/lib/postgresql: run 'make deps' first" >&2; exit 1
fi
extension_dir=/usr/share/postgresql/$pg_major/extension
library_dir=/usr/lib/postgresql/$pg_major/lib
if [ -f "$extension_dir/citus.control" ] && [ -f "$library_dir/citus.so" ]; then
  echo "Citus is installed for PostgreSQL $pg_major ($library_dir/citus.so)"; exit 0
fi
if [ ! -f "$archive" ]; then
  echo "Citus is not installed and its source archive $archive is absent: install Citus from the" >&2
  echo "Citus project's packages (https://docs.citusdata.com/en/stable/installation/) or use a managed" >&2
  echo "Citus; 'make test' skips the Citus tests without it." >&2
  exit 1
fi
actual_sha=$(sha256sum "$archive" | cut -d' ' -f1)
if [ "$actual_sha" != "$expected_sha" ]; then
  echo "$archive has sha256 $actual_sha, expected $expected_sha: not building from it" >&2; exit 1
fi

# Build dependencies. The server headers are pinned to the installed server's version: the newest
# candidate would upgrade the server and libpq with them.
server_version=$(dpkg-query -W -f='${Version}' "postgresql-$pg_major")
wanted="postgresql-server-dev-$pg_major=$server_version liblz4-dev libzstd-dev"
missing=""
for pkg in $wanted; do
  name=${pkg%%=*}
  dpkg-query -W -f='${Status}' "$name" 2>/dev/null | grep -q "install ok installed" || missing="$missing $pkg"
done
if [ -n "$missing" ]; then
  echo "installing:$missing"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
fi

work=$(mktemp -d /tmp/citus-build-XXXXXX)
chmod 755 "$work"  # apt-get download writes as the _apt account
trap 'rm -rf "$work"' EXIT
# The server headers include <gssapi/gssapi.h>. Installing libkrb5-dev would upgrade the krb5
# libraries, so only its headers are unpacked (libkrb5-dev's symlinks point into krb5-multidev).
(cd "$work" && apt-get download -q libkrb5-dev krb5-multidev >/dev/null)
mkdir -p "$work/krb5"
for deb in "$work"/*.deb; do dpkg-deb -x "$deb" "$work/krb5"; done
headers="-I$work/krb5/usr/include"

mkdir -p "$work/src"
tar -xzf "$archive" -C "$work/src" --strip-components=1
[ -x "$work/src/configure" ] || { echo "no configure script in $archive" >&2; exit 1; }
cd "$work/src"
echo "building Citus in $work/src (about 2 minutes on two cores)"
# --without-libcurl: curl only serves Citus's usage statistics.
PG_CONFIG=/usr/lib/postgresql/$pg_major/bin/pg_config CPPFLAGS="$headers" \
  ./configure --without-libcurl > "$work/configure.log" || { tail -30 "$work/configure.log"; exit 1; }
# The CDC decoders' sub-build needs the header path again. COPT (which PGXS adds to CFLAGS) carries
# it to every sub-build; PG_CPPFLAGS on the command line would replace the sub-builds' own
# include paths (safestringlib's among them).
nice make -j2 COPT="$headers" > "$work/build.log" 2>&1 || { tail -40 "$work/build.log"; exit 1; }
$sudo make install > "$work/install.log" 2>&1 || { tail -20 "$work/install.log"; exit 1; }
echo "Citus installed for PostgreSQL $pg_major ($library_dir/citus.so)"
