/**
 * Standard system error messages (the C library's strerror texts, Node's error codes, the shells'
 * "command not found"). Every program prints them with its own prefix (`ls: x: No such file or
 * directory`, `(eval):cd:1: no such file or directory: x`, `ENOENT: no such file…`), so the cause
 * is the message, not the program: a statement that carries one is reduced to the canonical text.
 */

export interface SystemError {
  /** Canonical statement, the words of the standard message. */
  text: string;
  re: RegExp;
}

export const SYSTEM_ERRORS: readonly SystemError[] = [
  { text: 'No such file or directory', re: /\bno such file or directory\b|\bENOENT\b/i },
  { text: 'Permission denied', re: /\bpermission denied\b|\bEACCES\b/i },
  { text: 'Operation not permitted', re: /\boperation not permitted\b|\bEPERM\b/i },
  { text: 'Is a directory', re: /\bis a directory\b|\bEISDIR\b|illegal operation on a directory/i },
  { text: 'Not a directory', re: /\bnot a directory\b|\bENOTDIR\b/i },
  { text: 'File exists', re: /\bfile exists\b|\bEEXIST\b/i },
  { text: 'Directory not empty', re: /\bdirectory not empty\b|\bENOTEMPTY\b/i },
  { text: 'No space left on device', re: /\bno space left on device\b|\bENOSPC\b/i },
  { text: 'Read-only file system', re: /\bread-only file system\b|\bEROFS\b/i },
  { text: 'Too many open files', re: /\btoo many open files\b|\bEMFILE\b/i },
  { text: 'Cannot allocate memory', re: /\bcannot allocate memory\b|\bENOMEM\b|\bout of memory\b/i },
  { text: 'Connection refused', re: /\bconnection refused\b|\bECONNREFUSED\b/i },
  { text: 'Connection reset by peer', re: /\bconnection reset\b|\bECONNRESET\b|\bsocket hang up\b/i },
  { text: 'Connection timed out', re: /\bconnection timed out\b|\bETIMEDOUT\b/i },
  { text: 'Network is unreachable', re: /\bnetwork is unreachable\b|\bENETUNREACH\b|\bEHOSTUNREACH\b|\bno route to host\b/i },
  { text: 'Could not resolve host', re: /\bcould not resolve host\b|\bENOTFOUND\b|\bEAI_AGAIN\b|\bname or service not known\b|\btemporary failure in name resolution\b/i },
  { text: 'Broken pipe', re: /\bbroken pipe\b|\bEPIPE\b/i },
  { text: 'Argument list too long', re: /\bargument list too long\b|\bE2BIG\b/i },
  { text: 'Device or resource busy', re: /\bdevice or resource busy\b|\bEBUSY\b/i },
  // shells: bash "x: command not found", zsh "command not found: x", sh "x: not found" after a line number
  { text: 'Command not found', re: /\bcommand not found\b|^\S*sh: (?:line )?\d+: \S+: not found$/i },
];

/** The canonical text of the first standard error the line carries, else null. */
export function systemError(line: string): string | null {
  for (const e of SYSTEM_ERRORS) if (e.re.test(line)) return e.text;
  return null;
}
