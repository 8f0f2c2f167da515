// The checkout module's public surface: the composition root imports only this file.
export { CheckoutModule } from './checkout.module';
