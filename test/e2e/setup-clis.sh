#!/usr/bin/env bash
# Installs the real terminal coding tools the tools e2e drives (issue 26) into the e2e cache, once:
#   @anthropic-ai/claude-code and @openai/codex, pinned, with npm, install scripts skipped; Claude
#   Code's postinstall (install.cjs: copies the platform package's native binary over the bin/claude.exe
#   placeholder, no download) is run by hand. ~780 MB; a second run is a fast no-op (stamp file + the
#   executables it vouches for). Called by setup-code-server.sh; progress on stderr, stdout only:
#   CLAUDE=…/node_modules/.bin/claude  CODEX=…/node_modules/.bin/codex
set -euo pipefail
CACHE="${MODEL_RELAY_E2E_CACHE:-$HOME/.cache/model-relay-vscode}"
CLAUDE_CODE_VERSION="${CLAUDE_CODE_VERSION:-2.1.331}"
CODEX_VERSION="${CODEX_VERSION:-0.169.0}"
DIR="$CACHE/clis"
STAMP="$DIR/.ready-claude-$CLAUDE_CODE_VERSION-codex-$CODEX_VERSION"
CLAUDE="$DIR/node_modules/.bin/claude"
CODEX="$DIR/node_modules/.bin/codex"
export npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false npm_config_loglevel=error
log() { echo "[setup-clis] $*" >&2; }

ready() { [ -f "$STAMP" ] && [ -x "$CLAUDE" ] && [ -x "$CODEX" ]; }

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

echo "CLAUDE=$CLAUDE"
echo "CODEX=$CODEX"
