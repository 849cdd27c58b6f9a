#!/usr/bin/env bash
# Installs the real terminal coding tools the tools e2e drives (issue 26) into the e2e cache, once:
#   @anthropic-ai/claude-code and @openai/codex, pinned, with npm, install scripts skipped; Claude
#   Code's postinstall (install.cjs: copies the platform package's native binary over the bin/claude.exe
#   placeholder, no download) is run by hand. ~780 MB; a second run is a fast no-op (stamp file + the
#   executables it vouches for).
#   @github/copilot, pinned, in a folder of its own (with its own stamp): its Linux binary is the
#   optional dependency @github/copilot-linux-x64 (npm-loader.js runs it; no install script, nothing
#   downloaded at run time — the binary unpacks itself into ~/.cache/copilot on its first start). ~200 MB.
# Called by setup-code-server.sh; progress on stderr, stdout only:
#   @google/gemini-cli, pinned, in a folder of its own (JavaScript only).
#   CLAUDE=…/node_modules/.bin/claude  CODEX=…/node_modules/.bin/codex  COPILOT=…/node_modules/.bin/copilot
#   GEMINI=…/node_modules/.bin/gemini
set -euo pipefail
CACHE="${MODEL_RELAY_E2E_CACHE:-$HOME/.cache/model-relay-vscode}"
CLAUDE_CODE_VERSION="${CLAUDE_CODE_VERSION:-2.1.331}"
CODEX_VERSION="${CODEX_VERSION:-0.169.0}"
COPILOT_VERSION="${COPILOT_VERSION:-1.0.102}"
DIR="$CACHE/clis"
STAMP="$DIR/.ready-claude-$CLAUDE_CODE_VERSION-codex-$CODEX_VERSION"
CLAUDE="$DIR/node_modules/.bin/claude"
CODEX="$DIR/node_modules/.bin/codex"
# its own npm folder: an install in $DIR (of the two above) would prune it as extraneous
COPILOT_DIR="$DIR/copilot"
COPILOT_STAMP="$COPILOT_DIR/.ready-copilot-$COPILOT_VERSION"
COPILOT="$COPILOT_DIR/node_modules/.bin/copilot"
GEMINI_CLI_VERSION="${GEMINI_CLI_VERSION:-0.61.0}"
GEMINI_DIR="$DIR/gemini"
GEMINI_STAMP="$GEMINI_DIR/.ready-gemini-$GEMINI_CLI_VERSION"
GEMINI="$GEMINI_DIR/node_modules/.bin/gemini"
export npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false npm_config_loglevel=error
log() { echo "[setup-clis] $*" >&2; }

ready() { [ -f "$STAMP" ] && [ -x "$CLAUDE" ] && [ -x "$CODEX" ]; }
copilot_ready() { [ -f "$COPILOT_STAMP" ] && [ -x "$COPILOT" ]; }
gemini_ready() { [ -f "$GEMINI_STAMP" ] && [ -x "$GEMINI" ]; }

if ! ready; then
  mkdir -p "$DIR"
  exec 8>"$DIR/.lock"
  flock -w 1800 8 || { log "another setup still holds $DIR/.lock after 30 min"; exit 1; }
  if ! ready; then
    start=$(date +%s)
    rm -f "$DIR"/.ready-*
    [ -f "$DIR/package.json" ] || echo '{"name":"clis","private":true}' >"$DIR/package.json"
    log "installing @anthropic-ai/claude-code@$CLAUDE_CODE_VERSION and @openai/codex@$CODEX_VERSION into $DIR"
    (cd "$DIR" && npm install --no-save --ignore-scripts \
      "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" "@openai/codex@$CODEX_VERSION" </dev/null >&2)
    (cd "$DIR" && node node_modules/@anthropic-ai/claude-code/install.cjs </dev/null >&2)
    # prove both start before vouching for them
    "$CLAUDE" --version >&2
    "$CODEX" --version >&2
    touch "$STAMP"
    log "CLIs ready in $(($(date +%s) - start)) s"
  fi
  exec 8>&-
fi

if ! copilot_ready; then
  mkdir -p "$COPILOT_DIR"
  exec 8>"$DIR/.lock"
  flock -w 1800 8 || { log "another setup still holds $DIR/.lock after 30 min"; exit 1; }
  if ! copilot_ready; then
    start=$(date +%s)
    rm -f "$COPILOT_DIR"/.ready-*
    [ -f "$COPILOT_DIR/package.json" ] || echo '{"name":"copilot-cli","private":true}' >"$COPILOT_DIR/package.json"
    log "installing @github/copilot@$COPILOT_VERSION into $COPILOT_DIR"
    (cd "$COPILOT_DIR" && npm install --no-save --ignore-scripts "@github/copilot@$COPILOT_VERSION" </dev/null >&2)
    # prove it starts (and is the version pinned) before vouching for it; it unpacks into a throwaway cache
    scratch="$(mktemp -d)"
    version="$(COPILOT_CACHE_HOME="$scratch" COPILOT_AUTO_UPDATE=false "$COPILOT" --version </dev/null)"
    rm -rf "$scratch"
    echo "$version" >&2
    case "$version" in *"$COPILOT_VERSION"*) ;; *) log "copilot --version said: $version"; exit 1 ;; esac
    touch "$COPILOT_STAMP"
    log "Copilot CLI ready in $(($(date +%s) - start)) s"
  fi
  exec 8>&-
fi

# Gemini CLI: JavaScript only (no binary, nothing downloaded at run time), in a folder of its own too. ~100 MB.
if ! gemini_ready; then
  mkdir -p "$GEMINI_DIR"
  exec 8>"$DIR/.lock"
  flock -w 1800 8 || { log "another setup still holds $DIR/.lock after 30 min"; exit 1; }
  if ! gemini_ready; then
    rm -f "$GEMINI_DIR"/.ready-*
    [ -f "$GEMINI_DIR/package.json" ] || echo '{"name":"gemini-cli","private":true}' >"$GEMINI_DIR/package.json"
    log "installing @google/gemini-cli@$GEMINI_CLI_VERSION into $GEMINI_DIR"
    (cd "$GEMINI_DIR" && npm install --no-save --ignore-scripts "@google/gemini-cli@$GEMINI_CLI_VERSION" </dev/null >&2)
    version="$(HOME="$(mktemp -d)" "$GEMINI" --version </dev/null)"
    echo "$version" >&2
    case "$version" in *"$GEMINI_CLI_VERSION"*) ;; *) log "gemini --version said: $version"; exit 1 ;; esac
    touch "$GEMINI_STAMP"
  fi
  exec 8>&-
fi

echo "CLAUDE=$CLAUDE"
echo "CODEX=$CODEX"
echo "COPILOT=$COPILOT"
echo "GEMINI=$GEMINI"
