// lightning/actions as a screen quick action sees it: the event that closes the action's panel.
export const CloseActionScreenEventName = 'lightning__actionsclosescreen';

export class CloseActionScreenEvent extends CustomEvent {
  constructor() {
    super(CloseActionScreenEventName, { bubbles: false, composed: false });
  }
}
