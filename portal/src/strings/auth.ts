import type { SocialProvider } from '@exploit-grid/api/contracts/constants';

/** Sign-in and account pages (core-app sections 2, 4, 5, 8). */

// Page titles ('Title | Exploit Grid') and headings.
export const LOGIN_TITLE = 'Log In';
export const LOGIN_SUBTITLE = 'Authenticate to re-enter the grid.';
export const SIGNUP_TITLE = 'Sign Up';
export const SIGNUP_SUBTITLE = 'Create your operator identity. Your box is waiting.';
export const FORGOT_PASSWORD_TITLE = 'Forgot Password';
export const FORGOT_PASSWORD_SUBTITLE = 'Enter your email and we will send you a reset link.';
export const RESET_PASSWORD_TITLE = 'Reset Password';
export const RESET_PASSWORD_SUBTITLE = 'Choose a new password of at least 8 characters.';
export const AWAITING_TITLE = 'Awaiting Confirmation';

// Field labels.
export const EMAIL_LABEL = 'Email';
export const PASSWORD_LABEL = 'Password';
export const HANDLE_LABEL = 'Handle';
export const NEW_PASSWORD_LABEL = 'New Password';
export const CONFIRM_PASSWORD_LABEL = 'Confirm Password';

// Buttons and links.
export const LOG_IN = 'Log In';
export const SIGN_UP = 'Sign Up';
export const SEND_RESET_LINK = 'Send Reset Link';
export const RESET_PASSWORD = 'Reset Password';
export const RESEND = 'Resend';
export const FORGOT_PASSWORD_LINK = 'Forgot password?';
export const NO_ACCOUNT = 'No identity yet?';
export const SIGNUP_LINK = 'Sign up';
export const HAVE_ACCOUNT = 'Already an operator?';
export const LOGIN_LINK = 'Log in';
export const BACK_TO_LOGIN = 'Back to login';
export const OR = 'Or';
export const CONTINUE_WITH = 'Continue with';
export const SIGN_UP_WITH = 'Sign up with';
export const providerNames: Record<SocialProvider, string> = {
  google: 'Google',
  github: 'GitHub',
  linkedin: 'LinkedIn',
};
export const EXCHANGING_SOCIAL_TOKEN = 'Authenticating...';

// Login (core-app section 8).
export const VERIFIED_OK = 'System link confirmed. You may now authenticate.';
export const VERIFY_EXPIRED_OR_INVALID = 'Authentication matrix has expired or is invalid. Please try again.';
export const VERIFY_UNKNOWN_ANOMALY = 'An unknown anomaly occurred during authentication.';
export const EMAIL_NOT_VERIFIED_NOTICE = 'Your access is not yet confirmed. Awaiting email verification.';
export const loginFailed = (message: string) => `Authentication failed: ${message}`;
export const LOGIN_FAILED_DEFAULT = 'Invalid credentials.';
/** A form's checks (the API's schemas, loaded on first use) could not be downloaded. */
export const FORM_CHECK_UNAVAILABLE = 'Could not reach the grid. Check your connection and try again.';
export const SOCIAL_TOKEN_INVALID = 'Invalid or expired token.';
export const SOCIAL_LOGIN_FAILED = 'Failed to authenticate with social login.';
// A social sign-in landing while a session is open: switching accounts needs the operator's word.
export const alreadySignedInAs = (handle: string) =>
  `You are already signed in as ${handle}. Sign in with the new account instead?`;
export const ALREADY_SIGNED_IN = 'You are already signed in. Sign in with the new account instead?';
export const STAY_SIGNED_IN = 'Stay signed in';
export const SWITCH_ACCOUNT = 'Switch account';

// Signup: consent (commerce-and-content sections 5, 9; the API refuses a sign-up without both).
export const AGE_CONFIRM_LABEL = 'I am 13 years of age or older.';
/** 'I accept the {Terms of Service} and the {Privacy Policy}.', the two names linking to their pages. */
export const TERMS_ACCEPT_BEFORE = 'I accept the';
export const TERMS_ACCEPT_BETWEEN = 'and the';
export const TERMS_LINK = 'Terms of Service';
export const PRIVACY_LINK = 'Privacy Policy';
export const SOCIAL_NEEDS_CONSENT = 'Tick both boxes to sign up with one of these accounts.';
/** After a social sign-in from the login page that would have created an account (nothing was created). */
export const SOCIAL_CONSENT_REQUIRED =
  'That account has no Exploit Grid identity yet. To create one, confirm your age and accept the terms below, then sign up with it again.';

// Signup.
export const registrationFailed = (message: string) => `Registration failed: ${message}`;
export const REGISTRATION_FAILED_DEFAULT = 'An unknown error occurred';

// Reset password.
export const RESET_TOKEN_MISSING = 'Invalid or missing password reset token.';
export const RESET_FAILED_DEFAULT = 'Failed to reset password.';

// Awaiting confirmation.
export const awaitingText = (email: string) =>
  `We sent a verification link to ${email}. Follow it to confirm your access, then log in.`;
export const RESEND_PROMPT = 'Nothing arrived? Check your spam folder or send a new link.';
export const RESEND_OK = 'A new verification matrix has been dispatched.';
export const resendFailed = (message?: string) => `Failed to resend email: ${message ?? 'Please try again.'}`;
// The API sends one link a minute per address (MAIL_COOLDOWN_SECONDS): the buttons count down meanwhile.
export const resendIn = (seconds: number) => `Resend in ${seconds} s`;

// Forgot password, after the neutral confirmation.
export const SEND_AGAIN = 'Send again';
export const sendAgainIn = (seconds: number) => `Send again in ${seconds} s`;
