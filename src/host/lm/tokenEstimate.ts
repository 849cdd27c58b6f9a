/** The script-aware token estimate lives in the core (the completions client estimates usage too). */
export { ESTIMATE, estimateTokens } from '../../gateway/tokenEstimate';
