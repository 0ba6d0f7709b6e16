/** Players' computers for end-to-end tests and benchmarks: the API tests' helpers. */
export {
  ClientNamespace,
  ShellListener,
  VpnClient,
  boxHostProblem,
  requireBoxHost,
  sshArgs,
} from '../../api/src/testing/netns.ts';
