import { describe, expect, it } from "vitest";
import { estimateTokens } from "../../src/run/window.js";

/**
 * One support reply in 12 languages, with its token counts under two BPE vocabularies, counted
 * with gpt-tokenizer 4.0.0 (`cl100k_base`, `o200k_base`). The counts are measurements, kept here
 * so the suite needs no tokenizer.
 */
const SAMPLES = [
  ["english", "The order left the depot this morning and should arrive on Tuesday. If it does not, reply to this message and we will send a replacement at no cost to you.", 34, 34],
  ["french", "La commande a quitté l'entrepôt ce matin et devrait arriver mardi. Si ce n'est pas le cas, répondez à ce message et nous enverrons un remplacement sans frais.", 47, 39],
  ["russian", "Заказ покинул склад сегодня утром и должен прибыть во вторник. Если этого не произойдёт, ответьте на это сообщение, и мы бесплатно отправим замену.", 64, 37],
  ["greek", "Η παραγγελία έφυγε από την αποθήκη σήμερα το πρωί και θα πρέπει να φτάσει την Τρίτη. Αν όχι, απαντήστε σε αυτό το μήνυμα και θα σας στείλουμε αντικατάσταση δωρεάν.", 139, 57],
  ["arabic", "غادر الطلب المستودع هذا الصباح ومن المفترض أن يصل يوم الثلاثاء. إذا لم يصل، فقم بالرد على هذه الرسالة وسنرسل بديلاً مجاناً.", 86, 39],
  ["hebrew", "ההזמנה יצאה מהמחסן הבוקר ואמורה להגיע ביום שלישי. אם לא, השב להודעה זו ונשלח לך תחליף ללא עלות.", 91, 39],
  ["hindi", "ऑर्डर आज सुबह गोदाम से निकल गया है और मंगलवार को पहुँच जाना चाहिए। अगर ऐसा नहीं होता है, तो इस संदेश का उत्तर दें और हम मुफ़्त में बदला हुआ सामान भेजेंगे।", 159, 44],
  ["thai", "คำสั่งซื้อออกจากคลังสินค้าเมื่อเช้านี้และควรจะมาถึงในวันอังคาร หากไม่เป็นเช่นนั้น โปรดตอบกลับข้อความนี้ แล้วเราจะส่งสินค้าทดแทนให้โดยไม่มีค่าใช้จ่าย", 138, 54],
  ["chinese", "订单今天早上已经离开仓库，预计星期二送达。如果没有送到，请回复这条消息，我们会免费为您寄送替换商品。", 49, 35],
  ["japanese", "ご注文の商品は今朝倉庫を出発し、火曜日に到着する予定です。届かない場合は、このメッセージに返信してください。無料で代わりの商品をお送りします。", 67, 47],
  ["korean", "주문하신 상품이 오늘 아침 창고에서 출발했으며 화요일에 도착할 예정입니다. 도착하지 않으면 이 메시지에 답장해 주세요. 무료로 교환 상품을 보내 드리겠습니다.", 84, 50],
  ["emoji", "Shipped 📦🚚 arriving Tuesday 🎉🎉 thanks 🙏😀👍", 25, 17],
] as const;

/** Tokens of the text alone: a message's estimate less its framing (an empty message's). */
const textTokens = (content: string) => estimateTokens({ content }) - estimateTokens({ content: "" });

describe("token estimate of a message", () => {
  it.each(SAMPLES)("counts %s text near a real tokenizer's count, and never under the leaner vocabulary's", (_language, text, cl100k, o200k) => {
    const estimate = textTokens(text);
    expect(estimate).toBeGreaterThanOrEqual(Math.floor(0.66 * cl100k));
    expect(estimate).toBeLessThanOrEqual(Math.ceil(1.2 * cl100k));
    expect(estimate).toBeGreaterThanOrEqual(o200k);
  });

  it("keeps four ASCII characters a token, and counts a CJK character as a token", () => {
    expect(textTokens("abcd".repeat(250))).toBe(250);
    expect(textTokens("漢".repeat(1000))).toBe(1000);
    expect(textTokens("😀".repeat(10))).toBe(20);
    const call = { id: "c1", name: "lookup_order", arguments: '{"orderId":"订单"}' };
    // name 12 + arguments (14 ASCII, 2 CJK) + id 2 + 8 of framing, in quarter tokens.
    expect(estimateTokens({ content: "", toolCalls: [call] })).toBe(Math.ceil((12 + 14 + 2 * 4 + 2 + 8) / 4) + 4);
  });
});
